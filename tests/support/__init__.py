"""What the tests share: loopback servers, documents, a browser, a CLI runner."""
