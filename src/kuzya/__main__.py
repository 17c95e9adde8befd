"""`python -m kuzya` runs the command line."""

from kuzya.cli.app import main

main()
