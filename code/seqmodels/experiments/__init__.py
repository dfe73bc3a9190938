"""Each chapter's experiment machinery, one subpackage per chapter (named as the chapter's page)."""
