"""The .axb reader: one grammar (axb.lark), and fast readers of its one-item-per-line layout."""
