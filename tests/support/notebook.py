"""Notebooks shaped like learners', built with nbformat: a .py example cut into cells the way people
write them, with the cells real homework carries around the answer (a title, a scratch call, a plot, a
training-loop demo, data that is not there, Colab's download, a shell line, magics) in Jupyter's, Colab's and
VS Code's shapes."""

from __future__ import annotations

import json

import nbformat
from nbformat import v4

#: Cells learners leave around their answer; none of them may run when the notebook is graded.
NOISE = [
    "import matplotlib.pyplot as plt\n%matplotlib inline\n!pip install -q tqdm",
    "table = sinusoidal_pe(50, 16)\nplt.imshow(table)\nplt.show()",
    "np.sum?",
    "data = np.load('my_data.npy')  # only on my laptop",
    "while True:  # the demo training loop, stopped by hand\n    pass",
    "from google.colab import files\nfiles.download('pe.png')",
    "%%bash\nls -la /content",
    "%%time\nfor i in range(3):\n    print(i)",
    "raise RuntimeError('scratch cell, ignore')",
]


def paragraphs(source: str) -> list[str]:
    """A .py file as cells: a new cell where a top-level line follows a blank line (a learner's paragraphs)."""
    cells: list[list[str]] = [[]]
    lines = source.splitlines()
    for i, line in enumerate(lines):
        starts = line and not line[0].isspace() and i > 0 and not lines[i - 1].strip()
        if starts and cells[-1] and not line.startswith(("#", ")", "]", "}")):
            cells.append([])
        cells[-1].append(line)
    return ["\n".join(c).strip("\n") for c in cells if "\n".join(c).strip()]


def notebook(cells: list[str], shape: str = "jupyter", markdown: bool = True, noise: bool = True,
             outputs: int = 200_000) -> str:
    """The code ``cells`` as a notebook of ``shape``: jupyter (nbformat 4.5, ids), colab (4.0, its metadata and
    form cells), vscode (4.2, no ids, no cell metadata), with a title, noise cells between and huge outputs."""
    nb = v4.new_notebook()
    if shape == "colab":
        nb.nbformat_minor = 0
        nb.metadata = {"colab": {"provenance": [], "name": "Homework3.ipynb"},
                       "kernelspec": {"name": "python3", "display_name": "Python 3"}, "accelerator": "GPU"}
    elif shape == "vscode":
        nb.nbformat_minor = 2
        nb.metadata = {"language_info": {"name": "python"}}
    else:
        nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                      "language": "python"}}
    if markdown:
        nb.cells.append(v4.new_markdown_cell("# Homework 3: positional encodings\nWrite the functions below."))
    extra = list(NOISE) if noise else []
    for k, code in enumerate(cells):
        if shape == "colab":
            code = "#@title Part %d { display-mode: \"form\" }\n" % (k + 1) + code
        cell = v4.new_code_cell(code, execution_count=k + 1)
        cell.outputs = [v4.new_output("display_data", data={"image/png": "iVBORw0KGgo" + "A" * outputs})]
        nb.cells.append(cell)
        if extra:
            nb.cells.append(v4.new_code_cell(extra.pop(0)))
    for code in extra:
        nb.cells.append(v4.new_code_cell(code))
    if shape == "colab":
        nb.cells.append(v4.new_code_cell("BASE = 10000.0 #@param {type:\"number\"}"))
    data = json.loads(nbformat.writes(nb))
    if shape in ("colab", "vscode"):  # nbformat 4.0-4.4 has no cell ids; VS Code writes no cell metadata either
        for cell in data["cells"]:
            cell.pop("id", None)
            if shape == "vscode":
                cell.pop("metadata", None)
    return json.dumps(data, indent=1)


def twin(source: str, shape: str = "jupyter", outputs: int = 200_000) -> str:
    """The notebook a learner would have written for the .py ``source`` (``outputs``: characters of picture each
    code cell's output holds)."""
    return notebook(paragraphs(source), shape, outputs=outputs)
