"""The pipeline's middle: what happens to one submission between the bundle and the verdict, one verb a module.

In the order a submission meets them (the engine, :mod:`judge.engine`, calls them):

- :mod:`~judge.grading.static_check`: the file's text is checked (UTF-8, size, syntax, functions, imports);
- :mod:`~judge.grading.prepare`: the bundle is made ready (inputs laid out, expected outputs, result slots);
- :mod:`~judge.grading.run_plan`: that preparation written down, so a cold start can begin the run first;
- the sandbox runs the learner's code (:mod:`judge.sandbox`);
- :mod:`~judge.grading.slots`: each result slot the run wrote is turned into a case result, as soon as it is
  written, with :mod:`~judge.grading.compare` (arrays against expected outputs) and :mod:`~judge.grading.terms`
  (where an element is, in the exercise's words);
- :mod:`~judge.grading.process_end`: why the process ended and what it used, from the kernel's records;
- :mod:`~judge.grading.capture`: what each call printed, split out of the run's captured output.

What went wrong is then explained by :mod:`judge.diagnosis`, and the verdict written by :mod:`judge.formats`.
"""
