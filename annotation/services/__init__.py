"""Services (writes) of the annotation app, one module per topic."""
