"""The NumPy array types that annotations name, one name each.  Imported only under
``TYPE_CHECKING`` (``from annoscore.arrays import IntArray``), so NumPy stays out of a
command's start-up."""

from typing import Any

import numpy as np
import numpy.typing as npt

AnyArray = npt.NDArray[Any]
AnyIntArray = npt.NDArray[np.signedinteger[Any]]
IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]
WordArray = npt.NDArray[np.uint64]
BoolArray = npt.NDArray[np.bool_]
ByteArray = npt.NDArray[np.uint8]
