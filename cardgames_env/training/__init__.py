"""Training, evaluation and leagues."""
