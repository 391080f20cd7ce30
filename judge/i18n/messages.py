"""Every sentence the judge itself says to a learner, as an id and its English text.

Why one module: the catalogs, the completeness test and translators see the whole vocabulary in one place,
and a sentence's id is defined once however many modules say it.  Ids are grouped by where the sentence is
made: ``case.*`` (a case's message, :mod:`judge.grading.slots`), ``process.*`` (why the process ended),
``verdict.*``, ``hidden.*`` (a learner's view of hidden cases), ``time.*``, ``pattern.*``, ``explain.*``,
``counterexample.*`` and ``report.*`` (the text report's own words).  Words of the bundle (function, case and
axis names, descriptions) and of the learner (exception texts) are parameters, never part of a message."""

from __future__ import annotations

from judge.i18n.catalog import msg, msgp

# English says some counted sentences one way for any number ("1 of 5 values differ": the values counted are
# plural); their singular and plural source texts are then the same, and French and Russian choose their forms.

# -- joining -------------------------------------------------------------------------------------------
OR = msg("list.or", "{first} or {second}")
#: a label and what it labels, as each language writes it (French: a space before the colon)
LABELLED = msg("join.labelled", "{label}: {text}")

# -- a case's message (judge.grading.slots) --------------------------------------------------------------
# The learner's exception as Python said it: English says nothing more (the status says "runtime error"); other
# languages add the judge's sentence before it, so the one English line left is Python's own.
RAISED = msg("case.raised", "{exception}")
RAISED_AS_IT_MUST = msg("case.raised_as_it_must", "raised {exception} as it must")
MUST_RAISE_BUT_RAISED = msg("case.must_raise_but_raised", "{message} (this call must raise {exception}{why})")
MUST_RAISE_BUT_RETURNED = msg("case.must_raise_but_returned",
                              "{function} must raise {exception} here{why}, but it returned {returned}")
AN_ARRAY_OF_SHAPE = msg("case.an_array_of_shape", "an array of shape {shape}")
CHANGED_INPUT = msg("case.changed_input", "it also modified its input {names} (inputs must stay unchanged)")
RETURNED_OTHER = msg("case.returned_other", "{function} returned {what}; it must return {expected}")
# what came back instead of an array (judge.sandbox.boundary.outputs.describe's words, said again in the judge)
VALUE_LIST = msgp("value.list", "a list of {count} item", "a list of {count} items", "count")
VALUE_TUPLE = msgp("value.tuple", "a tuple of {count} item", "a tuple of {count} items", "count")
VALUE_BOOL = msg("value.bool", "a bool")
VALUE_TYPE = msg("value.type", "a value of type {type}")
VALUE_SUBCLASS = msg("value.subclass", "an instance of {type}, a subclass of numpy.ndarray (shape {shape})")
VALUE_NDARRAY = msg("value.ndarray", "a numpy.ndarray of dtype {dtype} and shape {shape}")
VALUE_NDARRAY_DTYPE = msg("value.ndarray_dtype", "a numpy.ndarray of dtype {dtype}")
VALUE_NOT_A_TUPLE = msgp("value.not_a_tuple", "{what}, not a tuple of {count}", "{what}, not a tuple of {count}",
                         "count")
VALUE_ITEMS_NOT = msgp("value.items_not", "a {kind} of {count} item, not {expected}",
                       "a {kind} of {count} items, not {expected}", "count")
VALUE_ITEM_IS = msg("value.item_is", "a {kind} whose item {index} is {what}")
VALUE_UNREADABLE = msg("value.unreadable", "an output that cannot be read ({error})")
MUST_RETURN_TUPLE = msgp("case.must_return_tuple", "a tuple of {count} numpy arrays ({names})",
                         "a tuple of {count} numpy arrays ({names})", "count")
MUST_RETURN_NUMBER = msg("case.must_return_number", "one number (a float)")
MUST_RETURN_ARRAY = msg("case.must_return_array", "a numpy.ndarray")
TOO_LARGE = msg("case.too_large", "returned an array of shape {shape}, expected {expected}")
UNSUPPORTED_DTYPE = msg("case.unsupported_dtype", "returned an array of unsupported dtype {dtype}")
HEADER_INCONSISTENT = msg("case.header_inconsistent", "the result's header is inconsistent with its size")
SCALAR_EXPECTED = msg("case.scalar_expected", "returned an array of shape {shape}; it must return one number "
                                              "(a float)")
WRONG_SHAPE = msg("case.wrong_shape", "returned shape {shape}, expected {expected}")
ITEM_WRONG_SHAPE = msg("case.item_wrong_shape", "{item} has shape {shape}, expected {expected}")
ITEM_WRONG_DTYPE = msg("case.item_wrong_dtype", "{item} has dtype {dtype}, expected {expected}")
WRONG_DTYPE = msg("case.wrong_dtype", "returned dtype {dtype}, expected {expected}")
VALUES_CORRECT = msg("case.values_correct", "values are correct")
NAN_OR_INF = msg("case.nan_or_inf", "NaN or infinite")
OFF_BY = msg("case.off_by", "off by {error:.3g}")
ONE_VALUE_OFF = msg("case.one_value_off", "the value is {error}, more than {atol:g} + {rtol:g}*|expected| from the "
                                          "expected one")
EXPECTED_GOT = msg("case.expected_got", "expected {expected:.9g}, got {got:.9g}")
NONFINITE = msgp("case.nonfinite", "{nonfinite} of {total} values are NaN or infinite",
                 "{nonfinite} of {total} values are NaN or infinite", "nonfinite")
NONFINITE_AT = msgp("case.nonfinite_at",
                    "{nonfinite} of {total} values are NaN or infinite (the first at {where})",
                    "{nonfinite} of {total} values are NaN or infinite (the first at {where})", "nonfinite")
VALUES_DIFFER = msgp("case.values_differ",
                     "{mismatched} of {total} values ({share:.1%}) differ from the expected ones by more than "
                     "{atol:g} + {rtol:g}*|expected| (largest error {error:.3g})",
                     "{mismatched} of {total} values ({share:.1%}) differ from the expected ones by more than "
                     "{atol:g} + {rtol:g}*|expected| (largest error {error:.3g})", "mismatched")
VALUES_DIFFER_REL = msgp("case.values_differ_rel",
                         "{mismatched} of {total} values ({share:.1%}) differ from the expected ones by more than "
                         "{atol:g} + {rtol:g}*|expected| (largest error {error:.3g}, largest relative error "
                         "{relative:.3g})",
                         "{mismatched} of {total} values ({share:.1%}) differ from the expected ones by more than "
                         "{atol:g} + {rtol:g}*|expected| (largest error {error:.3g}, largest relative error "
                         "{relative:.3g})", "mismatched")
OUT_OF_TOLERANCE_IN = msg("case.out_of_tolerance_in", "out of tolerance: {counts}")
COUNT_IN = msg("case.count_in", "{count} in {kind}")
AT_INDEX = msg("case.at_index", "at index {index} ({where}) expected {expected:.9g}, got {got:.9g}")
AT_ITEM = msg("case.at_item", "at {where} expected {expected:.9g}, got {got:.9g}")
UNREADABLE = msg("case.unreadable", "the result could not be read: {reason}")
ENDED_BEFORE_RETURN = msg("case.ended_before_return", "the process ended before this call returned (exit code 0)")
ADDRESS_SPACE = msg("case.address_space", "memory limit exceeded: the address-space limit (RLIMIT_AS) refused an "
                                          "allocation")

# -- an element of an output, in the exercise's terms (judge.grading.terms) ---------------------------------
WHERE_THE_VALUE = msg("where.the_value", "the value")
WHERE_LEADING = msg("where.leading", "{name} index {index}")
WHERE_INDEX = msg("where.index", "index {index}")
WHERE_UNPAIRED = msg("where.unpaired", "{at} (the unpaired last {name})")
WHERE_PAIR = msg("where.pair", "{at} (pair {pair}, {kind})")
KIND_PAIRED = msg("where.kind_paired", "{pair} {names}")
KIND_UNPAIRED = msg("where.kind_unpaired", "unpaired last {name}")

# -- checks before anything runs (judge.grading.static_check) ----------------------------------------------
FILE_TOO_LARGE = msg("source.too_large", "the file is {size} bytes; the limit is {limit} bytes")
NOT_UTF8 = msg("source.not_utf8", "the file is not valid UTF-8 (byte {byte}, line {line}); save it as UTF-8")
SYNTAX_ERROR = msg("source.syntax_error", "syntax error: {error} (line {line}, column {column})")
CANNOT_PARSE = msg("source.cannot_parse", "the file cannot be parsed: {error}")
RELATIVE_IMPORT = msg("source.relative_import", "relative import on line {line} is not allowed")
IMPORT_NOT_ALLOWED = msg("source.import_not_allowed", "import of module '{module}' on line {line} is not allowed "
                                                      "(allowed: {allowed})")
MISSING_FUNCTIONS = msgp("source.missing_functions", "missing function {names} at the top level of the file",
                         "missing functions {names} at the top level of the file", "count")

# -- why the process ended (judge.grading.process_end) ----------------------------------------------------
KILLED_CASE_WALL = msg("process.killed_case_wall", "killed: this call ran longer than its wall-time limit")
KILLED_TOTAL_WALL = msg("process.killed_total_wall", "killed: the submission ran longer than its total wall-time "
                                                     "limit")
KILLED_OOM = msg("process.killed_oom", "killed by the kernel: memory limit exceeded")
KILLED_RSS = msg("process.killed_rss", "killed: memory limit exceeded (the kernel's count of the process's resident "
                                       "memory passed the limit)")
KILLED_CPU = msg("process.killed_cpu", "killed: CPU time limit of {limit:g} s exceeded")
KILLED_SIGNAL = msg("process.killed_signal", "the process was killed by {signal}")
EXITED = msg("process.exited", "the process exited with code {code}")

# -- why a notebook cannot be graded (judge.notebooks' fixed English, said again in the judge: judge.grading.refusals)
NB_TOO_LARGE = msg("notebook.too_large", "the notebook is {size} bytes (outputs included); the limit is {limit} bytes: "
                                         "clear its outputs (Edit > Clear all outputs) and save")
NB_CELL = msg("notebook.cell", "cell {number}")
NB_CELL_ID = msg("notebook.cell_id", "cell {number} (id {id})")
NB_SYNTAX = msg("notebook.syntax_error", "syntax error in {cell}, line {line}: {error}")
NB_DEFINES_NO = msg("notebook.defines_no", "the notebook defines no {missing} at the top level of a code cell (it "
                                           "defines: {defined})")
NB_NOTHING = msg("notebook.nothing", "nothing")
NB_MEMORY_DATA = msg("notebook.memory_data", "the notebook cannot be read in the memory allowed: is a cell holding "
                                             "data rather than code?")
NB_BIG_NUMBER = msg("notebook.big_number", "the notebook cannot be read: it holds a number of {digits} digits where a "
                                           "notebook's numbers are short (was the file edited by hand?)")
NB_NOT_JSON = msg("notebook.not_json", "the notebook is not valid JSON: {error} at line {line}, column {column}")
NB_NOT_JSON_CUT = msg("notebook.not_json_cut", "the notebook is not valid JSON: {error} at line {line}, column "
                                               "{column} (the file ends too early: was it saved completely?)")
NB_NOT_UTF8 = msg("notebook.not_utf8", "the notebook is not UTF-8 text: save it again from Jupyter")
NB_TOO_DEEP = msg("notebook.too_deep", "the notebook cannot be read: its JSON nests lists or objects deeper than a "
                                       "notebook does (was the file edited by hand?)")
NB_MEMORY = msg("notebook.memory", "the notebook cannot be read in the memory allowed: clear its outputs (Edit > "
                                   "Clear all outputs) and save")
NB_STOPPED = msg("notebook.stopped", "the notebook cannot be read: its reader stopped on it (is the file a notebook "
                                     "Jupyter saved?)")
NB_UNREADABLE = msg("notebook.unreadable", "the notebook cannot be read: {error}")
NB_NOT_A_NOTEBOOK = msg("notebook.not_a_notebook", "the file is JSON but not a Jupyter notebook (it has no list of "
                                                   "cells)")
NB_OLD_FORMAT = msg("notebook.old_format", "the notebook is in nbformat {version}, which is not read here: open it in "
                                           "Jupyter and save it again (it is converted to nbformat 4)")
NB_CODE_TOO_LONG = msg("notebook.code_too_long", "the notebook's code cells hold more than {limit} characters (cell "
                                                 "{number} passes it): a notebook's code is far smaller; keep data in "
                                                 "files, not in cells")
NB_NO_CODE = msg("notebook.no_code", "the notebook has no code cells: write your functions in a code cell")
NB_WALL = msg("notebook.wall", "reading the notebook took longer than {seconds:g} s: is a cell holding data rather "
                               "than code?")
NB_CPU = msg("notebook.cpu", "reading the notebook took more than {seconds} s of CPU time: is a cell holding data "
                             "rather than code?")

# -- the verdict's message ------------------------------------------------------------------------------
FIRST_FAILING = msg("verdict.first_failing", "first failing case {label}: {message}")
HIDDEN_SUFFIX = msg("verdict.hidden_suffix", "{case} (hidden)")
PUBLIC_PASSED_HIDDEN_NOT = msg("verdict.public_passed_hidden_not",
                               "every public case passed; some hidden cases did not (only the score is shown for "
                               "hidden cases)")
PROBES_WITHHELD = msg("verdict.probes_withheld",
                      "many submissions in a short time: hidden cases' feedback is withheld")
PROBES_WITHHELD_UNTIL = msg("verdict.probes_withheld_until",
                            "many submissions in a short time: hidden cases' feedback is withheld until {back_at} "
                            "(submissions made from then on show it)")

# -- a learner's view of hidden cases (judge.formats.learner) ---------------------------------------------
HIDDEN_LABEL = msg("hidden.label", "hidden case {k} of {n}")
STATUS_WRONG_ANSWER = msg("status.wrong_answer", "wrong answer")
STATUS_RAISED = msg("status.raised", "raised an exception")
STATUS_TIME = msg("status.time_limit_exceeded", "time limit exceeded")
STATUS_MEMORY = msg("status.memory_limit_exceeded", "memory limit exceeded")
STATUS_SKIPPED_LONG = msg("status.skipped_long", "not run: an earlier case ended the process")
STATUS_INTERNAL = msg("status.internal_error", "internal error")
RAISED_CLASS = msg("hidden.raised_class", "raised {exception}")
SHARE_OUT = msg("hidden.share_out", "{words}: {share:.0%} of the values out of tolerance")

# -- time feedback (judge.diagnosis.timing, judge.formats.learner) ----------------------------------------
ALL_FINISHED_RIGHT = msgp("time.all_finished_right", "correct so far: all {count} finished calls were right",
                          "correct so far: all {count} finished calls were right", "count")
SOME_FINISHED_WRONG = msgp("time.some_finished_wrong", "{wrong} of {count} finished calls were wrong",
                           "{wrong} of {count} finished calls were wrong", "wrong")
NONE_FINISHED = msg("time.none_finished", "no call finished")
LOOP = msg("time.loop", "a Python loop")
LOOP_OVER = msg("time.loop_over", "a Python loop over the {axes}")
CASE_HIDDEN = msg("time.case_hidden", "{case}, hidden")
SIZE_ONE_NUMBER = msg("time.size_one_number", "one number")
TOO_SLOW = msg("time.too_slow", "{head}; too slow on {function} for the {size} output (case {case}); the finished "
                                "calls took at most {slowest:.1f} ms each. Look for {loop} and replace it with array "
                                "operations (vectorise it).")
HIDDEN_RAN_OUT = msg("time.hidden_ran_out", "{head}; {case} ran out of time. Look for a Python loop and replace it "
                                            "with array operations (vectorise it).")

# -- failure patterns (judge.diagnosis.patterns) ----------------------------------------------------------
VERB_WRONG = msg("pattern.verb.wrong_answer", "gives a wrong answer")
VERB_CRASHES = msg("pattern.verb.runtime_error", "crashes")
VERB_TIME = msg("pattern.verb.time_limit_exceeded", "runs out of time")
VERB_MEMORY = msg("pattern.verb.memory_limit_exceeded", "runs out of memory")
VERB_FAILS = msg("pattern.verb.fails", "fails")
EVERY_CASE_THAT_RAN = msg("pattern.every_case_that_ran", "{verb} on every case that ran")

# -- the judge's own named mistakes (judge.diagnosis.generic; a bank may reword them, then the bundle translates)
GENERIC_MISTAKES = {
    "not_ndarray": msg("mistake.not_ndarray", "Return a numpy.ndarray, not a list, a scalar or another type."),
    "ndarray_subclass": msg("mistake.ndarray_subclass", "Return a plain numpy.ndarray, not a subclass of it: "
                                                        "subclasses are rejected whatever their comparison operators "
                                                        "say."),
    "non_finite": msg("mistake.non_finite", "Your output contains NaN or inf where every expected value is finite."),
    "input_mutated": msg("mistake.input_mutated", "Your function changed an input array. Return a new array and "
                                                  "leave the inputs untouched."),
    "transposed": msg("mistake.transposed", "Your output is transposed: its last two axes are swapped."),
    "extra_leading_axis": msg("mistake.extra_leading_axis", "Your output has an extra leading axis of length 1 (e.g. "
                                                            "table[None] or unsqueeze(0)): return an array of exactly "
                                                            "the expected shape."),
    "float32_precision": msg("mistake.float32_precision", "Your output has float32 precision (or dtype): compute in "
                                                          "float64."),
    "constant_output": msg("mistake.constant_output", "Your output is a single constant value (e.g. all zeros): it "
                                                      "was never really computed."),
    "forged_verdict": msg("mistake.forged_verdict", "Your program prints something that looks like a verdict. The "
                                                    "judge decides the verdict from the arrays your functions return, "
                                                    "in its own process; printed text changes nothing."),
    "monkeypatch_numpy": msg("mistake.monkeypatch_numpy", "Your file replaces numpy functions (e.g. numpy.allclose). "
                                                          "The judge compares results in its own process, so this "
                                                          "changes nothing; only correct arrays pass."),
}
EVIDENCE_AT = msg("mistake.evidence_at", "e.g. case {case}: at {where} expected {expected:.7g}, got {got:.7g}")
EVIDENCE = msg("mistake.evidence", "e.g. case {case}: {message}")

EXACTLY_ON = msgp("pattern.exactly_on", "{verb} exactly on the {count} cases where {where}",
                  "{verb} exactly on the {count} cases where {where}", "count")
ONLY_ON = msg("pattern.only_on", "{verb} only on the one case where {where}")
PAST_FAILED = msg("pattern.past.fails", "fails")
PAST = {
    "wrong_answer": msg("pattern.past.wrong_answer", "got a wrong answer"),
    "runtime_error": msg("pattern.past.runtime_error", "crashed"),
    "time_limit_exceeded": msg("pattern.past.time_limit_exceeded", "ran out of time"),
    "memory_limit_exceeded": msg("pattern.past.memory_limit_exceeded", "ran out of memory"),
}
EVERY_CASE_THAT = msg("pattern.every_case_that", "every case that {past} is one where {where}")
ATOM_SUCH = msgp("pattern.such_cases", "{atom} ({failing} of the {total} such cases)",
                 "{atom} ({failing} of the {total} such cases)", "total")
ATOM_AND = msg("pattern.and", "{first} and {second}")
ATOM_CALL = msg("pattern.call", "the call is to {function}")
ATOM_TAG = msg("pattern.tag", "it is tagged '{tag}'")
ATOM_IS = msg("pattern.is", "{name} is {what}")
ATOM_LAYOUTS = {
    "c": msg("pattern.layout.c", "C-contiguous"),
    "fortran": msg("pattern.layout.fortran", "Fortran-ordered"),
    "strided": msg("pattern.layout.strided", "a non-contiguous view"),
}
ATOM_READ_ONLY = msg("pattern.read_only", "read-only")
ATOM_WRITABLE = msg("pattern.writable", "writable")
ATOM_NO_LEAD = msg("pattern.no_lead", "the output has no {axis} axis")
ATOM_SOME_LEAD = msg("pattern.some_lead", "the output has at least one {axis} axis")
ATOM_ONE_LEAD = msg("pattern.one_lead", "the output has exactly one {axis} axis")
ATOM_NOT_ONE_LEAD = msg("pattern.not_one_lead", "the output has no or more than one {axis} axis")
ATOM_MANY_LEAD = msg("pattern.many_lead", "the output has more than one {axis} axis")
ATOM_NUMBER_OF = msg("pattern.number_of", "the number of {axes}")
ATOM_ODD = msg("pattern.odd", "{label} is odd")
ATOM_EVEN = msg("pattern.even", "{label} is even")
ATOM_IS_ONE = msg("pattern.is_one", "{label} is 1")
ATOM_MORE_THAN_ONE = msg("pattern.more_than_one", "{label} is more than 1")

# -- explanations (judge.formats.explain) ------------------------------------------------------------------
NO_KNOWN_MISTAKE = msg("explain.no_known_mistake", "No known mistake explains every failing case.")
EXPLAINS_ALL = msgp("explain.explains_all",
                    "{id}: explains all {checked} failing case it was checked on{unchecked} (confidence "
                    "{confidence:.0%})",
                    "{id}: explains all {checked} failing cases it was checked on{unchecked} (confidence "
                    "{confidence:.0%})", "checked")
UNCHECKED = msg("explain.unchecked", "; the other {rest} of the {failing} failing cases could not be checked against "
                                     "it (output too large to keep, or of another shape)")
PARTLY_EXPLAINS = msgp("explain.partly_explains",
                       "partly explains: {id}, {cases} of the {checked} failing case it was checked on{broken} "
                       "({confidence:.0%})",
                       "partly explains: {id}, {cases} of the {checked} failing cases it was checked on{broken} "
                       "({confidence:.0%})", "checked")
BROKEN_PASSING = msgp("explain.broken_passing", ", but {broken} passing case would fail with it",
                      ", but {broken} passing cases would fail with it", "broken")
ALSO_CONSISTENT = msg("explain.also_consistent", "also consistent: {id}")
WHAT_YOUR_CODE_COMPUTES = msg("explain.what_your_code_computes", "What your code computes:")
RIGHT = msg("explain.right", "Right: {items}.")
FACT = msg("explain.fact", "Fact: {fact}")
FACT_IN_CASE = msg("explain.fact_in_case", "case {case}: {fact}")
RECOVERED_EXACT = msg("recover.exact", "Your output is reproduced exactly by code that {what}.")
RECOVERED_NONE = msg("recover.none", "No formula of the known family reproduces your output.")
RECOVERED_CLOSEST = msg("recover.closest", "No formula of the known family reproduces every failing case; the "
                                           "closest one (reproducing {n} of the {m} checked) is code that {what}.")
AND_LAST = msg("join.and_last", "{items}; and {last}")
CE_BEFORE_CALL = msg("counterexample.before_call", "{name} before the call")
CE_AFTER_CALL = msg("counterexample.after_call", "{name} after the call:")
CE_WROTE_INTO = msg("counterexample.wrote_into", "changed: your function wrote into {name} (e.g. with {name} += ... "
                                                 "or {name}[...] = ...); return a new array and leave {name} as it was")
CE_RETURNED = msg("counterexample.returned", "returned")
CE_EXPECTED_WORD = msg("counterexample.expected_word", "expected")
CE_GOT_WORD = msg("counterexample.got_word", "got")
NOTEBOOK_GRADED = msgp("explain.notebook_graded",
                       "notebook: graded the definitions in cell {cells} (only what the functions need; nothing "
                       "else was run){skipped}",
                       "notebook: graded the definitions in cells {cells} (only what the functions need; nothing "
                       "else was run){skipped}", "count")
NOTEBOOK_SKIPPED = msgp("explain.notebook_skipped", "; not Python or not parsed: cell {cells}",
                        "; not Python or not parsed: cells {cells}", "count")
DIFFERS_VALUES = msg("counterexample.values", "the values differ")
DIFFERS_SHAPE = msg("counterexample.shape", "the shape differs")
DIFFERS_DTYPE = msg("counterexample.dtype", "the dtype differs")
DIFFERS_NOT_ARRAY = msg("counterexample.not_an_array", "it did not return an array")
DIFFERS_RAISES = msg("counterexample.raises", "it raises where the reference returns")
DIFFERS_OTHER_EXCEPTION = msg("counterexample.raises_another", "it raises another exception than the one it must")
DIFFERS_RETURNS = msg("counterexample.returns", "it returns where it must raise")
DIFFERS_INPUT = msg("counterexample.input_changed", "it changes its input")
CE_EXPECTED = msg("counterexample.expected", "expected:")
CE_GOT = msg("counterexample.got", "got:")
CE_EXPECTED_RAISES = msg("counterexample.expected_raises", "expected: raises {exception}")
CE_YOUR_CODE_RAISED = msg("counterexample.your_code_raised", "your code raised: {text}")
CE_YOUR_FUNCTION_RETURNED = msg("counterexample.your_function_returned", "your function returned: {text}")
CE_TOO_LARGE = msg("counterexample.too_large", "(too large to show: where they differ is below)")

# -- a picture's title (judge.diagnosis.pictures' fixed English, said again at the door: judge.i18n.localize) ----
PICTURE_EXPECTED = msg("picture.expected", "case {case}: expected{where}")
PICTURE_YOURS = msg("picture.yours", "case {case}: yours{where}")
PICTURE_DIFFERENCE = msg("picture.difference", "case {case}: yours - expected{where}")
PICTURE_PAIRS = msg("picture.column_pairs", "case {case}: column pairs, expected vs yours")
PICTURE_WHERE = msg("picture.where", ", {name} index {index}")

# -- the text report's own words (judge.formats.text) -------------------------------------------------------
R_COMMON = msg("report.common", "What the failing cases have in common")
R_WENT_WRONG = msg("report.went_wrong", "What went wrong")
R_COUNTEREXAMPLE = msg("report.counterexample",
                       "A smallest input where your function differs (the judge made it up: it is no case)")
R_TIME = msg("report.time", "Time")
R_PICTURES = msg("report.pictures", "Pictures")
R_PROPERTIES = msg("report.properties", "Properties of your output")
R_PROPERTIES_NOTE = msg("report.properties_note", "(facts checked without the answer, on the failing cases)")
R_MARK_OK = msg("report.mark_ok", "ok")
R_MARK_FAIL = msg("report.mark_fail", "FAIL")
R_FAILS_IN = msg("report.fails_in", "(fails in {failed} of {checked} cases)")
R_HEADLINE = msg("report.headline", "{problem}: {status}  score {score}{counts}")
R_COUNTS = msgp("report.counts", "({passed} of {total} cases passed)", "({passed} of {total} cases passed)",
                "total")
R_PUBLIC_FIRST = msgp("report.public_first",
                      "{problem}: public cases {status}  ({passed} of {total} passed); the hidden cases are running",
                      "{problem}: public cases {status}  ({passed} of {total} passed); the hidden cases are running",
                      "total")
R_CASE = msg("report.column.case", "case")
R_FUNCTION = msg("report.column.function", "function")
R_STATUS = msg("report.column.status", "status")
R_TIME_COLUMN = msg("report.column.time", "time")
R_HIDDEN = msg("report.hidden", "(hidden)")
R_EXPECTED_VS_GOT = msg("report.expected_vs_got", "Expected vs got, case {case}")
R_AROUND = msg("report.around", "around {where}")
R_AT = msg("report.at", "at {where}")
R_EXPECTED = msg("report.expected", "expected")
R_GOT = msg("report.got", "got")
R_LARGEST = msg("report.largest", "(* the largest error)")
R_LARGEST_RED = msg("report.largest_red", "(* the largest error; values outside the tolerance are marked red in "
                                          "colour)")
R_RUN = msg("report.run", "run: {wall} ms wall, {cpu} ms CPU")
R_PEAK = msg("report.peak", "peak memory {mib} MiB")
R_ISOLATION = msg("report.isolation", "isolation: {mode}")
R_LIMITS_BY = msg("report.limits_by", "limits by {by}")
R_NOT_ENFORCED = msg("report.not_enforced", "not enforced: {what}")
R_YOUR_STREAM = msg("report.your_stream", "your {stream}{cut}:")
R_FIRST_BYTES = msg("report.first_bytes", " (first {shown} of {total} bytes)")
R_WARNING = msg("report.warning", "WARNING: {note}")

# -- check()'s HTML report's own words (judge.formats.html; its other words are the text report's) ---------------
HTML_WHAT_DIFFERS = msg("html.column.what_differs", "what differs")
HTML_MS = msg("html.ms", "{ms:.1f} ms")

# -- what every platform's result file says (judge.formats.common and the exporters) ------------------------
X_TRUNCATED = msg("export.truncated", "... (truncated)")
X_HEADLINE = msg("export.headline", "{problem}: {status}, score {score:.3f}")
X_COUNTS = msgp("export.counts", " ({passed} of {total} case passed{withheld})",
                " ({passed} of {total} cases passed{withheld})", "total")
X_WITHHELD = msg("export.withheld", "; hidden cases: {passed} of {total} passed")
X_LIKELY_MISTAKE = msg("export.likely_mistake", "Likely mistake: {id} (confidence {confidence:.0%})")
X_PROPERTY_VIOLATED = msgp("export.property_violated",
                           "Property violated: {description} (in {failed} of {checked} failing case)",
                           "Property violated: {description} (in {failed} of {checked} failing cases)", "checked")
X_OUTPUT_WITHHELD = msg("export.output_withheld",
                        "(what your code printed during hidden cases is not shown: it could reveal their inputs)")
X_NOT_RUN = msg("export.not_run", "not run")
X_CASE_LIKELY = msg("export.case_likely", "likely mistake: {ids}")
X_CASE_PATTERN = msg("export.case_pattern", "pattern: {pattern}")
X_HIDDEN_CODE = msg("export.hidden_code", "hidden case: its arguments are not shown")
X_CASE_CODE = msg("export.case_code", "case {case}")
X_HIDDEN_CASES = msgp("export.hidden_cases", "{count} hidden case", "{count} hidden cases", "count")
X_PASSED_OF = msg("export.passed_of", "{passed} of {total} passed")
X_ONLY_SCORE = msg("export.only_score", "{passed} of {total} passed (only the score is shown for hidden cases)")
X_HIDDEN_SCORE_ONLY = msg("export.hidden_score_only", "hidden cases: only the score is shown")
X_HIDDEN_CASES_CODE = msg("export.hidden_cases_code", "hidden cases: their arguments are not shown")
X_HIDDEN_DESCRIPTION = msg("export.hidden_description", "hidden case: its arguments and values are not shown")
X_NOT_GRADABLE = msg("export.not_gradable", "The grader could not run your code (this is not your fault; no attempt "
                                            "was used): {why}")
X_PRINTED_WHOLE = msg("export.printed_whole", "(printed during the whole run)")
# the packaged runners' own words (judge.platforms.runner: nothing to grade, or a grader that could not run)
PK_NO_FOLDER = msg("package.no_folder", "no submission folder {folder} (nothing was submitted)")
PK_NO_FILE = msg("package.no_file", "no Python file or notebook was submitted: submit {file} (or {notebook})")
PK_SEVERAL = msg("package.several", "several files were submitted ({names}): submit only {file} (or {notebook})")
PK_SYMLINK = msg("package.symlink", "{name} is a symbolic link: submit the file itself")
PK_TOO_LARGE = msg("package.too_large", "{name} is {size} bytes, far too large for a submission")
PK_BUNDLE_BROKEN = msg("package.bundle_broken", "the problem bundle cannot be used: {error}")
PK_CANNOT_ISOLATE = msg("package.cannot_isolate", "your code was not run: this grader's machine cannot isolate it at "
                                                  "the level the course requires; please tell your instructor")
PK_JUDGE_ERROR = msg("package.judge_error", "the judge could not grade this submission: {error}")
PK_JUDGE_BUG = msg("package.judge_bug", "internal error in the judge: {error}")
PK_SETUP_BROKEN = msg("package.setup_broken", "The autograder could not grade this submission (its set-up is "
                                              "broken). Please tell your instructor.")
PK_RUNNER_FAILED = msg("package.runner_failed", "The test runner failed before it could write results; please "
                                                "report it.")
PK_WRITE_IN = msg("package.write_in", "Write your solution in {file}.")
# notebooks graded outside the kernel (judge.platforms.notebook_grading, otter's plugin, nbgrader's JudgeExecute)
PK_NOTEBOOK_NOT_GRADED = msg("package.notebook_not_graded", "numpy-judge could not grade this notebook: {error}")
PK_OTTER_NOTE = msg("package.otter_note", "note: otter also ran this notebook's cells in its kernel, outside any "
                                          "sandbox, and reads its results back from that kernel: this grade is "
                                          "numpy-judge's, from the saved notebook; a notebook written against otter "
                                          "itself can still forge otter's scores (README: Notebooks).")
PK_NBGRADER_NOTE = msg("package.nbgrader_note", "note: nbgrader also ran this notebook's cells in its kernel, outside "
                                                "any sandbox (JudgeExecute.run_cells): a notebook can alter what "
                                                "nbgrader records there.")

# -- check() in a notebook (judge.notebook_check) ----------------------------------------------------------
CHECK_PUBLIC = msgp("check.public", "public cases: {passed} of {total} passed", "public cases: {passed} of {total} "
                                                                                "passed", "total")
CHECK_HIDDEN = msgp("check.hidden", "hidden cases: {passed} of {total} passed", "hidden cases: {passed} of {total} "
                                                                                "passed", "total")
CHECK_HIDDEN_SCORE_ONLY = msgp("check.hidden_score_only", "hidden cases: {passed} of {total} passed (only the score "
                                                          "is shown)",
                               "hidden cases: {passed} of {total} passed (only the score is shown)", "total")
CHECK_HIDDEN_LATER = msgp("check.hidden_later", "{count} hidden case run when you submit",
                          "{count} hidden cases run when you submit", "count")
CHECK_NOT_ISOLATED = msg("check.not_isolated", "not isolated: your code ran as you, in a separate process (it is "
                                               "your own code)")

STATUS_WORDS = {
    "accepted": msg("status.accepted", "accepted"),
    "wrong_answer": STATUS_WRONG_ANSWER,
    "time_limit_exceeded": STATUS_TIME,
    "memory_limit_exceeded": STATUS_MEMORY,
    "runtime_error": msg("status.runtime_error", "runtime error"),
    "compile_error": msg("status.compile_error", "compile error"),
    "internal_error": STATUS_INTERNAL,
    "skipped": msg("status.skipped", "skipped"),
}

# -- the learner page's own words (judge.service.lti.page; learner.js gets them from the page, as JSON) ----------
PAGE_LANGUAGE = msg("page.language", "Language")
PAGE_SIGNED_IN = msg("page.signed_in", "Signed in as {name}")
PAGE_SKIP = msg("page.skip", "Skip to the editor")
PAGE_STATEMENT = msg("page.statement", "Statement")
PAGE_STATEMENT_ENGLISH = msg("page.statement_english", "This exercise's statement has not been translated yet: it "
                                                       "is shown in English.")
PAGE_EXAMPLES = msg("page.examples", "Public examples")
PAGE_NO_EXAMPLES = msg("page.no_examples", "This exercise has no public examples.")
PAGE_SEE_BELOW = msg("page.see_below", "<see below>")
PAGE_ARRAY_OF_SHAPE = msg("page.array_of_shape", "array of shape {shape}:")
PAGE_EXAMPLE_RAISES = msg("page.example_raises", "raises {exception}")
PAGE_EXAMPLE_EXPECTED = msg("page.example_expected", "expected =")
PAGE_YOUR_SOLUTION = msg("page.your_solution", "Your solution")
PAGE_EDITOR_HINT = msg("page.editor_hint", "Tab indents, Shift+Tab unindents. Press Esc, then Tab, to leave the "
                                           "editor. Ctrl+Enter submits. Your draft is kept in this browser.")
PAGE_PYTHON_SOURCE = msg("page.python_source", "Python source")
PAGE_SUBMIT = msg("page.submit", "Submit")
PAGE_NOTEBOOK = msg("page.notebook", "Or submit a notebook (.ipynb): its functions are graded, no other cell is run")
PAGE_NEEDS_JS = msg("page.needs_js", "This page needs JavaScript to submit.")
PAGE_VERDICT = msg("page.verdict", "Verdict")
PAGE_EARLIER = msg("page.earlier", "Your earlier submissions")
PAGE_NONE_YET = msg("page.none_yet", "None yet.")

# the words learner.js writes, by the key the script looks up ({name}: filled in by the script)
PAGE_SCRIPT_WORDS = {
    "status.accepted": msg("page.status.accepted", "Accepted"),
    "status.wrong_answer": msg("page.status.wrong_answer", "Wrong answer"),
    "status.time_limit_exceeded": msg("page.status.time_limit_exceeded", "Time limit exceeded"),
    "status.memory_limit_exceeded": msg("page.status.memory_limit_exceeded", "Memory limit exceeded"),
    "status.runtime_error": msg("page.status.runtime_error", "Runtime error"),
    "status.compile_error": msg("page.status.compile_error", "Not run: the file was refused"),
    "status.internal_error": msg("page.status.internal_error", "Internal error"),
    "status.skipped": msg("page.status.skipped", "Not run"),
    "state.queued": msg("page.state.queued", "Queued..."),
    "state.running": msg("page.state.running", "Running your code..."),
    "state.sending": msg("page.state.sending", "Sending..."),
    "state.public_judged": msg("page.state.public_judged", "Public cases judged; running the hidden cases..."),
    "state.judged_in": msg("page.state.judged_in", "Judged in {seconds} s."),
    "row": msg("page.row", "row"),
    "column": msg("page.column", "column"),
    "cell_expected": msg("page.cell_expected", "expected {value}"),
    "cell_got": msg("page.cell_got", "got {value}"),
    "window": msg("page.window", "Expected vs got around the largest error"),
    "differs.values": msg("page.differs.values", "the values differ"),
    "differs.shape": msg("page.differs.shape", "the shape differs"),
    "differs.dtype": msg("page.differs.dtype", "the dtype differs"),
    "differs.not an array": msg("page.differs.not_an_array", "it did not return an array"),
    "differs.raises": msg("page.differs.raises", "it raises where the reference returns"),
    "differs.raises another exception": msg("page.differs.raises_another",
                                            "it raises another exception than the one it must"),
    "differs.returns": msg("page.differs.returns", "it returns where it must raise"),
    "differs.input changed": msg("page.differs.input_changed", "it changes its input"),
    "counterexample": msg("page.counterexample", "A smallest input where your function differs"),
    "counterexample_label": msg("page.counterexample_label", "counterexample"),
    "counterexample_hint": msg("page.counterexample_hint", "The judge made this input up (it is not one of the "
                                                           "cases): run it yourself."),
    "expected": msg("page.expected", "expected"),
    "got": msg("page.got", "got"),
    "raises": msg("page.raises", "raises {exception}"),
    "too_large": msg("page.too_large", "(too large to show)"),
    "your_code_raised": msg("page.your_code_raised", "your code raised"),
    "your_function_returned": msg("page.your_function_returned", "your function returned"),
    "pictures": msg("page.pictures", "Pictures of the failing public cases"),
    "public_status": msg("page.public_status", "Public cases: {status}"),
    "score": msg("page.score", "score {score}%"),
    "score_public": msg("page.score_public", "score on the public cases: {score}%"),
    "hidden_running": msg("page.hidden_running", "The hidden cases are still running; the full verdict follows."),
    "notebook": msgp("page.notebook_cells", "Notebook: graded the definitions in cell {cells} (only what the "
                                            "functions need; no other cell was run).",
                     "Notebook: graded the definitions in cells {cells} (only what the functions need; no other "
                     "cell was run).", "count"),
    "what_went_wrong": msg("page.what_went_wrong", "What went wrong"),
    "first_failing": msg("page.first_failing", "First failing public case: {case}"),
    "withheld": msgp("page.withheld", "{count} hidden case", "{count} hidden cases", "count"),
    "passed_of": msgp("page.passed_of", "{passed} of {count} passed", "{passed} of {count} passed", "count"),
    "score_only": msg("page.score_only", "only the score is shown"),
    "probes_exceeded": msg("page.probes_exceeded", "many submissions in a short time: only the score is shown"),
    "probes_back_at": msg("page.probes_back_at", "; submissions from {time} show more"),
    "more_after": msg("page.more_after", "; more from {time}"),
    "visibility.public": msg("page.visibility.public", "public"),
    "visibility.hidden": msg("page.visibility.hidden", "hidden"),
    "head.case": msg("page.head.case", "Case"),
    "head.function": msg("page.head.function", "Function"),
    "head.visibility": msg("page.head.visibility", "Visibility"),
    "head.status": msg("page.head.status", "Status"),
    "head.time": msg("page.head.time", "Time"),
    "head.details": msg("page.head.details", "Details"),
    "ms": msg("page.ms", "{ms} ms"),
    "cases": msg("page.cases", "Cases"),
    "printed": msg("page.printed", "What your code printed ({stream}, public cases only)"),
    "cut": msg("page.cut", "[cut]"),
    "notebook_unreadable": msg("page.notebook_unreadable", "The notebook could not be read: {error}"),
    "history_item": msg("page.history_item", "{status}, score {score}%"),
    # the page API's refusals a learner can meet, by their JSON code (the JSON keeps its English message, for
    # programs); any other code: "failed", with the HTTP status
    "unreachable": msg("page.unreachable", "The judge could not be reached: check your connection, then try again."),
    "failed": msg("page.failed", "The request failed (HTTP {status}): reload the page and try again."),
    "code.rate_limited": msg("page.code.rate_limited", "Too many requests in a short time: wait a moment, then "
                                                       "submit again."),
    "code.queue_full": msg("page.code.queue_full", "The judge has too much work right now: submit again in a "
                                                   "minute."),
    "code.tenant_queue_full": msg("page.code.tenant_queue_full", "Your course has too many submissions waiting: "
                                                                 "submit again in a minute."),
    "code.request_too_large": msg("page.code.request_too_large", "Your file is too large to submit."),
    "code.invalid_request": msg("page.code.invalid_request", "The judge could not read this submission: reload the "
                                                            "page and try again."),
    "code.not_found": msg("page.code.not_found", "This submission is not known here: reload the page."),
    "code.csrf_missing": msg("page.code.csrf_missing", "This page's session has expired: launch the activity again "
                                                       "from your course."),
    "code.csrf_invalid": msg("page.code.csrf_invalid", "This page's session has expired: launch the activity again "
                                                       "from your course."),
    "code.session_mismatch": msg("page.code.session_mismatch", "This page belongs to another launch: launch the "
                                                               "activity again from your course."),
    "code.cookie_missing": msg("page.code.cookie_missing", "The browser did not send this page's cookie: open the "
                                                           "activity in a new window, then launch it again."),
}

# -- the /learn sign-in pages (judge.service.lti.learn) -----------------------------------------------------------
LEARN_TITLE = msg("learn.title", "Sign in to practise")
LEARN_SIGNED_IN = msg("learn.signed_in", "Signed in as {name} ({course}).")
LEARN_CONTINUE = msg("learn.continue", "Continue")
LEARN_FIRST_TIME = msg("learn.first_time", "First time here")
LEARN_COURSE = msg("learn.course", "Course")
LEARN_ACCESS_CODE = msg("learn.access_code", "Access code")
LEARN_YOUR_NAME = msg("learn.your_name", "Your name (as the teacher knows you)")
LEARN_OPEN = msg("learn.open", "Open the exercise")
LEARN_COMING_BACK = msg("learn.coming_back", "Coming back from another browser")
LEARN_PERSONAL_CODE = msg("learn.personal_code", "Your personal code")
LEARN_WELCOME = msg("learn.welcome", "Welcome, {name} ({course}). Your personal code is")
LEARN_WRITE_IT_DOWN = msg("learn.write_it_down", "Write it down: it is shown only this once. This browser remembers "
                                                 "it; from another browser or after clearing cookies, it is the only "
                                                 "way back to your work. Nobody else can open your work with your "
                                                 "name or the course code.")
LEARN_NO_COOKIE = msg("learn.no_cookie", "This browser holds no personal code: sign in.")
LEARN_TOO_MANY_WRONG = msg("learn.too_many_wrong", "Too many wrong codes: wait a few minutes.")
LEARN_UNKNOWN_PERSONAL = msg("learn.unknown_personal", "No learner has this personal code.")
LEARN_WRONG_CODE = msg("learn.wrong_code", "Unknown course or wrong access code.")
LEARN_TYPE_NAME = msg("learn.type_name", "Type your name, as your teacher knows you.")
LEARN_MANY_JOINED = msg("learn.many_joined", "Many learners joined from this address just now: wait a minute.")

# -- the teacher's class view (judge.service.lti.teacher; teacher.js gets its words from the page, as JSON) ------
TEACHER_TITLE = msg("teacher.title", "{title}: the class")
TEACHER_LOADING = msg("teacher.loading", "Loading the roster...")
TEACHER_MISTAKES = msg("teacher.mistakes", "What the class gets wrong")
TEACHER_HEAD_MISTAKE = msg("teacher.head.mistake", "Mistake or pattern")
TEACHER_HEAD_LEARNERS = msg("teacher.head.learners", "Learners")
TEACHER_HEAD_SUBMISSIONS = msg("teacher.head.submissions", "Submissions")
TEACHER_NO_MISTAKES = msg("teacher.no_mistakes", "No named mistake or pattern yet.")
TEACHER_LEARNERS = msg("teacher.learners", "Learners")
TEACHER_DOWNLOAD_CSV = msg("teacher.download_csv", "Download CSV")
TEACHER_HEAD_LEARNER = msg("teacher.head.learner", "Learner")
TEACHER_HEAD_ATTEMPTS = msg("teacher.head.attempts", "Attempts")
TEACHER_HEAD_BEST = msg("teacher.head.best_score", "Best score")
TEACHER_HEAD_LAST = msg("teacher.head.last_status", "Last status")
TEACHER_HEAD_FIRST_ACCEPTED = msg("teacher.head.first_accepted", "First accepted")
TEACHER_HEAD_MISTAKES = msg("teacher.head.mistakes", "Mistakes")
TEACHER_HEAD_PROBES = msg("teacher.head.probes", "Probing limit hit")
TEACHER_REJUDGE_HEADING = msg("teacher.rejudge_heading", "After the exercise changed")
TEACHER_REJUDGE_EXPLAIN = msg("teacher.rejudge_explain", "Grade this course's submissions again with the exercise as "
                                                         "it is now; nothing changes for learners until you apply it.")
TEACHER_REJUDGE = msg("teacher.rejudge", "Rejudge (dry run)")
TEACHER_APPLY = msg("teacher.apply", "Apply: make the new verdicts current")
TEACHER_NEEDS_JS = msg("teacher.needs_js", "This page needs JavaScript.")
# the deep-linking picker (a teacher adds an exercise to the course) and the answer that posts it back
TEACHER_PICKER_TITLE = msg("teacher.picker_title", "Add an exercise")
TEACHER_PICKER_CASES = msgp("teacher.picker_cases", "{count} public case, {hidden} hidden",
                            "{count} public cases, {hidden} hidden", "count")
TEACHER_PICKER_ADD = msg("teacher.picker_add", "Add this exercise")
TEACHER_ADDING = msg("teacher.adding", "Adding the exercise")
TEACHER_CONTINUE = msg("teacher.continue", "Continue")

# the words teacher.js writes, by the key the script looks up ({name}: filled in by the script); the statuses'
# names are the learner page's
TEACHER_SCRIPT_WORDS = {
    **{key: word for key, word in PAGE_SCRIPT_WORDS.items() if key.startswith("status.")},
    "submitted_of": msgp("teacher.submitted_of", "{submitted} of {count} learner has submitted.",
                         "{submitted} of {count} learners have submitted.", "count"),
    "learner_heading": msgp("teacher.learner_heading", "{name}: {count} submission", "{name}: {count} submissions",
                            "count"),
    "pattern": msg("teacher.pattern", "pattern: {id}"),
    "not_submitted": msg("teacher.not_submitted", "not submitted"),
    "probe_limited": msgp("teacher.probe_limited", "{count} submission", "{count} submissions", "count"),
    "hidden": msg("teacher.hidden", "(hidden)"),
    "submission": msg("teacher.submission", "{when}: {status}"),
    "submission_score": msg("teacher.submission_score", "{when}: {status}, score {score}"),
    "matrix_corner": msg("teacher.matrix_corner", "old \\ new"),
    "rejudge.queued": msg("teacher.rejudge.queued", "queued"),
    "rejudge.running": msg("teacher.rejudge.running", "running"),
    "rejudge.done": msg("teacher.rejudge.done", "done"),
    "rejudge.applied": msg("teacher.rejudge.applied", "applied"),
    "rejudge.cancelled": msg("teacher.rejudge.cancelled", "cancelled"),
    "rejudge_progress": msgp("teacher.rejudge_progress", "{state}: {graded} of {total} graded, {count} change",
                             "{state}: {graded} of {total} graded, {count} changes", "count"),
    "starting": msg("teacher.starting", "Starting..."),
    "applied": msgp("teacher.applied", "Applied: {count} verdict changed.", "Applied: {count} verdicts changed.",
                    "count"),
    "error": msg("teacher.error", "Error {status}."),
    "load_failed": msg("teacher.load_failed", "The class could not be loaded: {error}"),
    # the page API's refusals a teacher can meet, by their JSON code (the JSON keeps its English message)
    "code.not_staff": msg("teacher.code.not_staff", "The class view is for the course's teachers: launch as one."),
    "code.no_roster": msg("teacher.code.no_roster", "The launch carried no Names and Role Provisioning service: "
                                                    "enable it for this tool in the course (the roster comes from "
                                                    "there)."),
    "code.roster_unavailable": msg("teacher.code.roster_unavailable", "The course's roster could not be read from "
                                                                      "the platform: try again in a moment."),
    "code.rejudge_open": msg("teacher.code.rejudge_open", "A rejudge of this exercise is already open for this "
                                                          "course: apply it or wait for it to end."),
    "code.rejudge_too_large": msg("teacher.code.rejudge_too_large", "This course has too many submissions to "
                                                                    "rejudge at once."),
    "code.conflict": msg("teacher.code.conflict", "This rejudge cannot be applied in its present state."),
    "code.rate_limited": msg("teacher.code.rate_limited", "Too many requests in a short time: wait a moment."),
    "code.csrf_invalid": msg("teacher.code.csrf_invalid", "This page's session has expired: launch the activity "
                                                          "again from your course."),
    "code.cookie_missing": msg("teacher.code.cookie_missing", "The browser did not send this page's cookie: open the "
                                                              "activity in a new window, then launch it again."),
}

# -- the cookie check on the way to a launch (judge.service.lti.routes.login, adapter.Login) ---------------------------
LOGIN_OPENING = msg("login.opening", "Opening the exercise...")
LOGIN_OPENING_TITLE = msg("login.opening_title", "Opening the exercise")
LOGIN_NO_COOKIE = msg("login.no_cookie", "This browser does not let the tool keep a cookie inside the course page.")
LOGIN_NEW_TAB = msg("login.new_tab", "Open the exercise in a new tab.")

# -- error pages a person reads (judge.service.lti: side.refuse and its callers) -----------------------------------
# The title, and the sentence around the technical detail ({detail}, a claim's or a parameter's name, a problem id):
# the detail is shown exactly as the platform or the library said it.
ERROR_LAUNCH_REFUSED = msg("error.launch_refused", "Launch refused")
ERROR_NO_EXERCISE = msg("error.no_exercise_chosen", "No exercise chosen")
ERROR_COOKIES_BLOCKED = msg("error.cookies_blocked", "Cookies blocked")
ERROR_SESSION_ENDED = msg("error.session_ended", "Session ended")
ERROR_NOT_YOUR_SESSION = msg("error.not_your_session", "Not your session")
ERROR_NOT_A_TEACHER = msg("error.not_a_teacher", "Not a teacher")
ERROR_PICKER_EXPIRED = msg("error.picker_expired", "Picker expired")
ERROR_TOO_MANY_SIGN_INS = msg("error.too_many_sign_ins", "Too many sign-ins")
ERROR_NO_SUCH_EXERCISE = msg("error.no_such_exercise", "No such exercise")
ERROR_SIGN_IN_REFUSED = msg("error.sign_in_refused", "Sign-in refused")
ERROR_COOKIE_BLOCKED = msg("error.cookie_blocked", "The browser did not send back the cookie this tool set when the "
                                                   "launch began. Browsers that block third-party cookies do this "
                                                   "inside a course page's frame: open the activity in a new window "
                                                   "(or allow cookies for this site), then launch it again.")
ERROR_SESSION_UNKNOWN = msg("error.session_unknown", "This page's session is unknown or has expired: launch the "
                                                     "activity again from your course.")
ERROR_ANOTHER_SESSION = msg("error.another_session", "This browser holds another launch's session.")
ERROR_CLASS_FOR_TEACHERS = msg("error.class_for_teachers", "The class view is for the course's teachers.")
ERROR_PICKER_UNKNOWN = msg("error.picker_unknown", "This picker is unknown, expired or was already used: start "
                                                   "adding the activity again from your course.")
ERROR_PICKER_USED = msg("error.picker_used", "This picker was already used.")
ERROR_PICK_ONE = msg("error.pick_one", "Unknown problem {problem}: pick one of the list.")
ERROR_NO_RETURN_URL = msg("error.no_return_url", "The deep-linking launch has no {claim}.")
ERROR_RETURN_NOT_HTTPS = msg("error.return_not_https", "The deep-linking launch's {claim} is not an https URL (http "
                                                       "is accepted on loopback only): the exercise cannot be sent "
                                                       "back there.")
ERROR_LOGIN_UNREGISTERED = msg("error.login_unregistered", "Login initiation refused: the platform is not "
                                                           "registered here ({detail}).")
ERROR_LOGIN_REFUSED = msg("error.login_refused", "Login initiation refused: {detail}")
ERROR_DEEP_LINK_LEARNER = msg("error.deep_link_learner", "Adding an exercise to the course is for its teachers: this "
                                                         "launch's roles are a learner's.")
ERROR_NO_PROBLEM = msg("error.no_problem", "This activity names no problem: set the custom parameter {parameter} in "
                                           "the activity (known: {known}).")
ERROR_UNKNOWN_PROBLEM = msg("error.unknown_problem", "This activity names the unknown problem {problem}: set the "
                                                     "custom parameter {parameter} in the activity (known: {known}).")
ERROR_SCORE_RULE = msg("error.score_rule", "This activity's custom parameter {parameter} must be one of {rules}: set "
                                           "it in the activity, or remove it.")
ERROR_FEEDBACK_UNKNOWN = msg("error.feedback_unknown", "This activity's custom parameter {parameter} is not one the "
                                                       "tool knows (feedback settings: {known}): correct it in the "
                                                       "activity, or remove it.")
ERROR_FEEDBACK_INVALID = msg("error.feedback_invalid", "This activity's feedback settings cannot apply: {detail}. "
                                                       "Correct the custom parameters in the activity, or remove "
                                                       "them.")
ERROR_NO_USER = msg("error.no_user", "The launch has no user ({claim}): anonymous launches cannot submit.")
ERROR_UNREGISTERED = msg("error.unregistered", "Launch refused: the id_token's issuer or audience (client id) is not "
                                               "registered here ({detail}).")
ERROR_LAUNCH_CHECK = msg("error.launch_check", "Launch refused: {detail}")
ERROR_STATE_CHECK = msg("error.state_check", "Launch refused ({detail}).")
ERROR_MESSAGE_TYPE = msg("error.message_type", "This tool answers resource link and deep linking launches, not "
                                               "{type}.")
ERROR_LEARNER_TOO_MANY = msg("error.learner_too_many", "This learner opened the exercise many times in a row: wait "
                                                       "a minute.")
ERROR_CLASS_TOO_MANY = msg("error.class_too_many", "The class view was opened many times in a row: wait a minute.")
ERROR_NO_EXERCISE_HERE = msg("error.no_exercise_here", "There is no exercise {problem} here.")
ERROR_OWN_PAGE_ONLY = msg("error.own_page_only", "This form can only be sent from this site's own page.")
