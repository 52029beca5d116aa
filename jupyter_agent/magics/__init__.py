"""magics."""
