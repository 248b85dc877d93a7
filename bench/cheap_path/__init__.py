"""The cheap path, measured: taught tools against catalogue tools against DOM driving."""
