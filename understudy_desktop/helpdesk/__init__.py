"""The team's helpdesk as the queue: one adapter per helpdesk (Request Tracker, Zendesk,
Freshdesk) behind one interface (base.py), the ids that map its tickets and people to the
console's (ids.py), the outbox every change leaves by (outbox.py), and the sync that brings
the helpdesk's changes in (sync.py)."""
