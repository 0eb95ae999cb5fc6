"""Tests of the integrations: Dask on a LocalCluster, Scrapy crawls."""
