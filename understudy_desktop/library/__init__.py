"""The person's library of taught tools, held by the shell: the approved definitions, their
approvals, status and usage. The page shows and runs them; it never decides what they are."""
