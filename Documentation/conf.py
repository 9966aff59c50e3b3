# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of this tree's documentation: every .rst under
# Documentation/ (index.rst is the root).  make docs builds it into
# build/docs/html; the docs tier of make check fails on any warning.
# Plain Sphinx (Debian's python3-sphinx), no extension: the pages are
# written as the kernel's are, and userspace-api/dice.rst also builds in
# the kernel's tree (the upstream tier).

project = 'dice'
copyright = 'the dice authors; GPL-2.0'
master_doc = 'index'
source_suffix = '.rst'
exclude_patterns = []
highlight_language = 'none'
html_theme = 'alabaster'
# The kernel's own setting: reST, not Markdown, and no smart quotes.
smartquotes = False
