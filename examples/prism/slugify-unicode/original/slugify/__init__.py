from slugify.core import slugify

__all__ = ["slugify"]
