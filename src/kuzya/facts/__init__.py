"""Facts: the attribute catalogue, claims found in messages, and the rules that find them."""
