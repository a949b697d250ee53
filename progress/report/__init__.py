"""Reports: verdicts, lassos and classifications rendered as text, JSON, tables and plots."""
