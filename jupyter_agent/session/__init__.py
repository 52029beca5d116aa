"""Session lifecycle as pure transforms: fork (copy with new ids) and export/import shapes."""
