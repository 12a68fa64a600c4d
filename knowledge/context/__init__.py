"""Context libraries (docs/design.md section 8): workspace topology, permission views, the Context Router,
knowledge cards with review, and the scope / context evaluations."""
