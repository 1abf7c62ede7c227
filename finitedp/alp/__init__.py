"""ALP: private sparse vectors (Aumüller, Lebeda & Pagh; Lebeda thesis chapter 2), exact.

Paper: Lebeda thesis chapter 2 (CCS'21 / JPC'22).  Neighbours are vectors at
l1 distance at most 1 (for a histogram: one row added or removed), unlike
BV's replacement of one row.
"""

from .hashing import HashSequence, HashTable
from .mechanism import ALP
from .release import ALPRelease

__all__ = ["ALP", "ALPRelease", "HashSequence", "HashTable"]
