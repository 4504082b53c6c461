"""The shipped policies: ``<env>.npz`` + ``<env>.json`` per env, written by ``cardgames export``.

Agent kind ``pretrained`` (:class:`cardgames_env.agents.pretrained.PretrainedAgent`) loads the
pair of the env it plays; the format is described in :mod:`cardgames_env.agents.pretrained`
and ``docs/training.md`` (section "Pretrained agents").
"""
