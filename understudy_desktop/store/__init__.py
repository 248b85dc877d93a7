"""The app's durable state: one SQLite database in the data dir (database.py: WAL,
migrations, one writer thread), the tables its migrations create for the queue and the
helpdesk (ticket_tables.py, helpdesk_tables.py; the SQL on them is the model's and the
helpdesk's), the queue's copy and its journal (queue_store.py), the person's settings
(settings.py), and the shapes of the JSON files Understudy 0.1 wrote (models.py, read once by
library/legacy.py to move them in). The page's IndexedDB is only a cache of the queue's copy."""
