"""Stage: the command line."""
