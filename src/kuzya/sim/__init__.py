"""The noodle shop simulation (sketch 000): a waiter and a chef with Kuzya memory serve
scripted regulars for weeks, scored for what they remember, what they keep private and
how large their prompts grow. `kuzya sim noodle-shop` runs it."""
