"""The console's commands, applied by the shell.

Every change to the queue, whoever asks (a person's click in the page, an agent's run, the
person's Run…), is one of the catalogue's commands, checked against its payload schema and
applied here to the SQLite queue. The page sends commands and draws what the shell says
happened; in a plain browser it keeps its own JavaScript model, held equal to this one by a
differential test (tests/test_model_parity.py).
"""
