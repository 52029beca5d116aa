"""Session lifecycle as pure transforms: fork (copy with new ids), export/import shapes,
and what each part shows (one table every view formats)."""
