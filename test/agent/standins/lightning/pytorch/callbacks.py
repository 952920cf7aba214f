class Callback(object):
    """The stand-in: Lightning calls setup, on_exception and teardown on it."""
