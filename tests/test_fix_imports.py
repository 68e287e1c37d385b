"""Adding a name to an existing ``from package import ...`` line, as the MONAI fix of SDL011
does: isort's order, the line's own layout, black's layout when one line grows too long."""

import libcst as cst
import pytest

from seedlint.fixes.imports import extend_from_import


def extended(source: str, line_length: int = 88):
    result = extend_from_import(cst.parse_module(source), "monai.data", "worker_init_fn", line_length)
    return None if result is None else result.code


def test_name_goes_in_isort_order_on_one_line():
    assert extended("from monai.data import CacheDataset, list_data_collate\nx = 1\n") == (
        "from monai.data import CacheDataset, list_data_collate, worker_init_fn\nx = 1\n"
    )
    assert extended("from monai.data import Dataset, zip_data\n") == "from monai.data import Dataset, worker_init_fn, zip_data\n"


def test_one_name_per_line_keeps_its_layout():
    source = "from monai.data import (\n    CacheDataset,\n    load_decathlon_datalist,\n)\n"
    assert extended(source) == "from monai.data import (\n    CacheDataset,\n    load_decathlon_datalist,\n    worker_init_fn,\n)\n"


def test_a_line_grown_too_long_is_split_as_black_splits_it():
    source = "# data\nfrom monai.data import CacheDataset, create_test_image_3d, list_data_collate\n"
    assert extended(source, line_length=80) == (
        "# data\nfrom monai.data import (\n    CacheDataset,\n    create_test_image_3d,\n"
        "    list_data_collate,\n    worker_init_fn,\n)\n"
    )


@pytest.mark.parametrize("source", [
    "from monai.transforms import Compose\n",
    "from .data import Dataset\n",
    "from monai.data import *\n",
    "from monai.data import CacheDataset, create_test_image_3d, list_data_collate  # noqa: F401\n",
])
def test_no_line_to_extend(source):
    assert extended(source, line_length=80) is None
