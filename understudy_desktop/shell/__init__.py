"""The Qt side a person sees: window, menus, dialogs, status bar."""
