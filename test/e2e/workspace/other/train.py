"""Another train.py in the workspace, so that a snapshot's train.py is ambiguous by name alone."""


def main():
    print("nothing to see here")
