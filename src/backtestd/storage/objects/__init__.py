"""storage.objects layer."""
