"""The browser app of ``cardgames serve``: play against agents, watch agent games, replay records.

Needs the ``web`` extra (Starlette, uvicorn). :mod:`.views` builds what a seat may see,
:mod:`.session` holds one game, :mod:`.app` is the ASGI app and its JSON API; the page, its
script, style and card faces are in ``static/`` (package data, nothing fetched at run time).
"""
