"""The judge as an HTTP service for course platforms.

``judge serve`` runs a FastAPI app (``app.py``) over a SQLAlchemy store
(``store.py``; every table in ``db/``, migrated by Alembic).  Submissions are judged either by an
in-process pool of warm sandbox workers (``embedded.py``, the default) or by ``judge worker`` processes
on Celery with Redis as broker (``celery_app.py``).  Both call the same
``worker.process_submission``; the service process itself never runs learner
code outside :class:`judge.engine.Judge`.
"""
