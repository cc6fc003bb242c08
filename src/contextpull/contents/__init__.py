"""The table of contents a model keeps in context: the index text and the one-line summaries it is made of."""
