"""Moving corpora to another embedding model (docs/design.md section 7)."""
