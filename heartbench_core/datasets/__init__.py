"""Datasets, their versions, items and model responses: the reads of the dataset browser and its API."""
