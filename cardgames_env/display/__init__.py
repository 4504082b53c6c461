"""What a person sees: terminal progress bars (:mod:`.progress`), the text helpers of the
games' ``ansi`` renderings (:mod:`.ansi`) and pictures of a table (:mod:`.picture`).

It stands on the floor above ``core`` (it imports only ``core``: the game views and results it
draws) and below the games: a game's env renders through it (its ``drawing``), training and the
command line draw their bars with it.
"""
