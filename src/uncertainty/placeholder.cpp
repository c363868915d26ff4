// Placeholder so the uncertainty layer configures on this branch (cov38); delete at merge.
