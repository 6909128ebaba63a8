"""The card library: the bundled database of real creature cards and how well plugins model them."""
