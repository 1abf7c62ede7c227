"""Input and output for the tools: universes, files, progress, releases on disk."""
