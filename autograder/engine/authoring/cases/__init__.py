"""One module per component: build(b) adds its cases to the Builder b (engine/authoring/builder.py)."""
