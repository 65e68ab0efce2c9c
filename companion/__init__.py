"""The companion: the only part of the project with I/O (web app, storage, command line)."""
