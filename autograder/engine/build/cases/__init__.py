"""One module per component: build(b) adds its cases to the Builder b (engine/build/builder.py)."""
