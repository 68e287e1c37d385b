"""What counts as a project giving a registered name as a value (analysis.name_mentions)."""

from seedlint.analysis.name_mentions import GivenNames
from seedlint.discovery import ProjectTree


def given(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    python = [str(p) for p in tmp_path.rglob("*.py")]
    return GivenNames(ProjectTree(str(tmp_path), lambda folder: None), python)


def test_quoted_in_python_and_words_in_configuration_count(tmp_path):
    names = given(tmp_path, {
        "pkg/__init__.py": "__all__ = ['Exported', \"AlsoExported\"]\n",
        "train.py": "build(dict(type='Quoted'))\nclass Unquoted: pass\n",
        "configs/a.yaml": "train_process:\n  - type: FromYaml\n",
        "scripts/run.sh": "python train.py --dataset=from-shell.v2\n",
    })
    assert names.gives("Quoted")
    assert names.gives("FromYaml")
    assert names.gives("from-shell.v2") and names.gives("v2")
    assert not names.gives("Unquoted")
    assert not names.gives("Exported") and not names.gives("AlsoExported")


def test_a_name_registered_by_a_string_needs_a_second_mention(tmp_path):
    names = given(tmp_path, {
        "datasets.py": "@DATASETS.register('voc')\nclass VOC: pass\n@DATASETS.register('coco')\nclass COCO: pass\n",
        "train.py": "parser.add_argument('--dataset', default='coco')\n",
    })
    assert names.gives("coco", registered_by_string=True)
    assert not names.gives("voc", registered_by_string=True)
    assert names.gives("voc")


def test_names_are_compared_without_case(tmp_path):
    # configs say `DATASET: kinetics`; the code looks up `REGISTRY.get(name.capitalize())`
    names = given(tmp_path, {"configs/k400.yaml": "TRAIN:\n  DATASET: kinetics\n", "datasets.py": "class Kinetics: pass\n"})
    assert names.gives("Kinetics")
