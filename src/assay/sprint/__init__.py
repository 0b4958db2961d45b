"""Sprint-driven generation (issue 30): a sprint's tasks from a tracker, classified, their commits
and the functions those changed; tests written for the core tasks onto a branch of their own, a
merge-request description, and how the generated tests fared in review (`assay stats`)."""
