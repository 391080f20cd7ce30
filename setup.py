"""Build hook: the repository's top-level ``problems/`` folder ships inside the package as ``judge.bundles``.

Authors, tests and the layout keep the bundles where a course keeps them, at the top of the repository; an
installed judge must carry them, so a wheel is a complete judge (``judge grade f.py`` in any folder finds them,
:mod:`judge.problem.locate`).  setuptools' declarative configuration cannot add a package that package discovery
does not find (``problems/`` holds no Python package), so the mapping is made here; everything else about the
build is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["judge", "judge.*"]), "judge.bundles"],
      package_dir={"judge.bundles": "problems"})
