"""Recurrent memory (sketch 004): a GRU encodes each session into one vector kept in a
few slots; a new question reads back the most similar sessions. `pip install
'kuzya[recurrent]'` (torch)."""
