"""Language: tokens and stems, sentences, dates and periods, word frequencies,
Russian normal forms."""
