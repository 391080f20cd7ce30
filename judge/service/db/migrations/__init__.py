"""Alembic's script folder for the service's database: ``env.py`` and the revisions in ``versions/``.

A package so the wheel carries it; :mod:`judge.service.db.migrate` points Alembic here and runs it.
"""
