"""The site made by the blog's own generator (Hugo): `generator` (running it and reading its
answers), `deploy` (its output onto the site's files, only what changed), `builds` (one build a
commit, articles its errors name left out), `target` (the site target over all of it).

A generated site keeps the generator's theme and addresses; steadypress keeps what it keeps for
every target: the ledger, per-article dead letters, and one write per change of the output.
"""
