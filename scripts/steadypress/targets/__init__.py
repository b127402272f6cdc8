"""Publishers, one module per kind, behind the one small `Target` protocol (`base.py`);
`registry` lists the kinds. Importing the package loads none of them: the configuration's
check reads the registry alone."""
