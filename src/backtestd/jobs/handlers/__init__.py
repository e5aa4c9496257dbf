"""What a worker does for each job kind."""
