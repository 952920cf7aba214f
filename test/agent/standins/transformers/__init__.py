class TrainerCallback(object):
    """The stand-in: the Trainer calls on_train_end (and more) on it."""
