#!/usr/bin/env python3
"""Prints every document of the YAML files named on the command line as one JSON array of
{"file": NAME, "doc": DOCUMENT}: how tests/deploy.rs reads the manifests of deploy/
(PyYAML is a dependency of kubernetes-validate, which scripts/test.sh installs)."""
import json
import sys

import yaml

docs = []
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as f:
        for doc in yaml.safe_load_all(f):
            if doc is not None:
                docs.append({"file": name, "doc": doc})
json.dump(docs, sys.stdout)
