"""The bundled demo workspace: its corpora (demo/corpora), queries (queries.json) and topology."""
