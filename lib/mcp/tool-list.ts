// Written by `npm run mcp:tools` (tools/mcp/write-tool-list.ts) from the tools' zod schemas; a test compares it.
import type { ToolListEntry } from './listing.ts';

export const toolList: ToolListEntry[] = [
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_workspace",
      "description": "Start here: you, projects (prefixes, active sprints, labels, states), accounts.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "limit": {
            "type": "integer"
          },
          "cursor": {
            "type": "string"
          }
        }
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_project",
      "description": "One project.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "create_project",
      "description": "Create a project; its unique prefix numbers its issues (APL-1).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "name": {
            "type": "string"
          },
          "prefix": {
            "type": "string",
            "pattern": "^[A-Z0-9]{2,4}$"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "documentation_url": {
            "type": [
              "string",
              "null"
            ],
            "format": "uri"
          },
          "production_url": {
            "type": [
              "string",
              "null"
            ],
            "format": "uri"
          }
        },
        "required": [
          "name",
          "prefix"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "update_project",
      "description": "Change a project's fields. A new prefix renumbers no issue.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "name": {
            "type": "string"
          },
          "prefix": {
            "type": "string",
            "pattern": "^[A-Z0-9]{2,4}$"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "documentation_url": {
            "type": [
              "string",
              "null"
            ],
            "format": "uri"
          },
          "production_url": {
            "type": [
              "string",
              "null"
            ],
            "format": "uri"
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "delete",
    "adminOnly": true,
    "tool": {
      "name": "delete_project",
      "description": "Delete a project and all in it into the trash; restore undoes it.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_sprints",
      "description": "A project's sprints, oldest first.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "status": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "planning",
                "active",
                "completing",
                "completed"
              ]
            }
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_sprint",
      "description": "One sprint.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_sprint_summary",
      "description": "A sprint's open, done and cancelled issues and points; percent done.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "create_sprint",
      "description": "Create a sprint in planning.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "name": {
            "type": "string"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "start_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "end_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "sprint_lead_id": {
            "type": [
              "integer",
              "null"
            ]
          },
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "name",
          "project_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "update_sprint",
      "description": "Change a sprint's fields (not its status).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "name": {
            "type": "string"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "start_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "end_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "sprint_lead_id": {
            "type": [
              "integer",
              "null"
            ]
          },
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "activate_sprint",
      "description": "Start a sprint in planning (start_date: today if unset).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "complete_sprint",
      "description": "Complete an active sprint; open issues go to the backlog or carry_over_sprint_id.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "carry_over_sprint_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_sprint_report",
      "description": "A completed sprint's report: committed, added, removed, done, carried over.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_velocity",
      "description": "Committed and done points of a project's last completed sprints (default 6).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprints": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_burndown",
      "description": "A started sprint's open points each day, with the ideal line.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "delete",
    "adminOnly": true,
    "tool": {
      "name": "delete_sprint",
      "description": "Delete a sprint and its issues into the trash (move_issue keeps them; restore undoes it).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_issues",
      "description": "A sprint's or the backlog's issues in order; a filter looks through 1,000.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "status": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "backlog",
                "todo",
                "in_progress",
                "done",
                "cancelled"
              ]
            }
          },
          "assignee_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "parent_id": {
            "type": [
              "integer",
              "null"
            ]
          },
          "q": {
            "type": "string"
          },
          "updated_since": {
            "type": "string",
            "format": "date-time"
          },
          "priority": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "none",
                "low",
                "medium",
                "high",
                "urgent"
              ]
            }
          },
          "type": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "task",
                "story",
                "bug",
                "epic"
              ]
            }
          },
          "due_before": {
            "type": "string",
            "format": "date"
          },
          "due_after": {
            "type": "string",
            "format": "date"
          },
          "labels": {
            "maxItems": 20,
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "required": [
          "project_id",
          "sprint_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "my_issues",
      "description": "Issues assigned to you, latest update first.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "status": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "backlog",
                "todo",
                "in_progress",
                "done",
                "cancelled"
              ]
            }
          },
          "priority": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "none",
                "low",
                "medium",
                "high",
                "urgent"
              ]
            }
          },
          "type": {
            "type": "array",
            "items": {
              "type": "string",
              "enum": [
                "task",
                "story",
                "bug",
                "epic"
              ]
            }
          },
          "due_before": {
            "type": "string",
            "format": "date"
          },
          "due_after": {
            "type": "string",
            "format": "date"
          },
          "labels": {
            "maxItems": 20,
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        }
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_issue",
      "description": "One issue.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          }
        }
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_issue_activity",
      "description": "An issue's history, oldest first: changes (who, from, to), comments.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          }
        }
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "create_issue",
      "description": "Create an issue at the end of a sprint or the backlog.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "sprint_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "title": {
            "type": "string"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "status": {
            "type": "string"
          },
          "story_points": {
            "type": [
              "integer",
              "null"
            ],
            "minimum": 0,
            "maximum": 1000
          },
          "assignee_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "priority": {
            "type": "string",
            "enum": [
              "none",
              "low",
              "medium",
              "high",
              "urgent"
            ]
          },
          "type": {
            "type": "string",
            "enum": [
              "task",
              "story",
              "bug",
              "epic"
            ]
          },
          "due_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "parent_id": {
            "type": [
              "integer",
              "null"
            ]
          },
          "labels": {
            "maxItems": 20,
            "type": "array",
            "items": {
              "type": [
                "integer",
                "string"
              ]
            }
          }
        },
        "required": [
          "project_id",
          "title"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "update_issue",
      "description": "Change an issue's fields.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          },
          "status": {
            "type": "string"
          },
          "story_points": {
            "type": [
              "integer",
              "null"
            ],
            "minimum": 0,
            "maximum": 1000
          },
          "assignee_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "priority": {
            "type": "string",
            "enum": [
              "none",
              "low",
              "medium",
              "high",
              "urgent"
            ]
          },
          "type": {
            "type": "string",
            "enum": [
              "task",
              "story",
              "bug",
              "epic"
            ]
          },
          "due_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "parent_id": {
            "type": [
              "integer",
              "null"
            ]
          },
          "labels": {
            "maxItems": 20,
            "type": "array",
            "items": {
              "type": [
                "integer",
                "string"
              ]
            }
          }
        }
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "move_issue",
      "description": "Move an issue to a sprint or the backlog (null), or (no to_sprint_id) to position or the end of its list.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          },
          "to_sprint_id": {
            "type": [
              "integer",
              "string",
              "null"
            ]
          },
          "position": {
            "type": "integer"
          }
        }
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "delete",
    "adminOnly": false,
    "tool": {
      "name": "delete_issue",
      "description": "Delete an issue and its comments into the trash; restore undoes it.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          }
        }
      },
      "annotations": {
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "create_issues",
      "description": "Create up to 50 issues in order, each answered alone; dry_run writes nothing.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "items": {
            "maxItems": 50,
            "type": "array",
            "items": {
              "type": "object",
              "description": "create_issue's arguments"
            }
          },
          "dry_run": {
            "type": "boolean"
          }
        },
        "required": [
          "items"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "update_issues",
      "description": "Change up to 50 issues in order, each answered alone; dry_run writes nothing.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "items": {
            "maxItems": 50,
            "type": "array",
            "items": {
              "type": "object",
              "description": "update_issue's arguments"
            }
          },
          "dry_run": {
            "type": "boolean"
          }
        },
        "required": [
          "items"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_sub_issues",
      "description": "An issue's sub-issues (issue: its number), oldest first.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue": {
            "type": "string"
          }
        },
        "required": [
          "issue"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "search_issues",
      "description": "Issues of all projects matching q: is:open type:bug assignee:@me updated:>-7d label:ui,a11y sort:due-asc (also project:, sprint:active|none|<id>, status:, category:, priority:>=high, points:1..5, due:, no:assignee, -x, \"phrase\", OR, NOT, ()).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "q": {
            "type": "string"
          },
          "limit": {
            "default": 50,
            "type": "integer",
            "minimum": 1,
            "maximum": 100
          },
          "cursor": {
            "type": "string"
          }
        },
        "required": [
          "q"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_labels",
      "description": "A project's labels, oldest first.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          }
        },
        "required": [
          "project_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "create_label",
      "description": "Create a label in a project.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "project_id": {
            "type": [
              "integer",
              "string"
            ]
          },
          "name": {
            "type": "string"
          },
          "color": {
            "type": "string",
            "pattern": "^#[0-9a-fA-F]{6}$"
          },
          "description": {
            "type": [
              "string",
              "null"
            ]
          }
        },
        "required": [
          "project_id",
          "name"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_comments",
      "description": "An issue's comments, oldest first.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          }
        }
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "add_comment",
      "description": "Comment on an issue, as you.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          },
          "body": {
            "type": "string"
          }
        },
        "required": [
          "body"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "edit_comment",
      "description": "Replace a comment's body (its author only).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "comment_id": {
            "type": "integer"
          },
          "body": {
            "type": "string"
          }
        },
        "required": [
          "comment_id",
          "body"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "delete",
    "adminOnly": false,
    "tool": {
      "name": "delete_comment",
      "description": "Delete a comment (its author only).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "comment_id": {
            "type": "integer"
          }
        },
        "required": [
          "comment_id"
        ]
      },
      "annotations": {
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "get_attachment",
      "description": "An attachment's file: an image or text up to 1 MB as content, else a link.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          },
          "attachment_id": {
            "type": "integer"
          }
        },
        "required": [
          "issue_number",
          "attachment_id"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "add_attachment",
      "description": "Attach a file: data (base64, up to 1 MB) uploads it; size gets an upload form, then call with attachment_id.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_number": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "content_type": {
            "type": "string"
          },
          "data": {
            "type": "string"
          },
          "size": {
            "type": "integer"
          },
          "comment_id": {
            "type": "integer"
          },
          "attachment_id": {
            "type": "integer"
          }
        },
        "required": [
          "issue_number"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_relations",
      "description": "An issue's relations (type, other issue).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_key": {
            "type": "string"
          }
        },
        "required": [
          "issue_key"
        ]
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "add_relation",
      "description": "Relate two issues; the other shows the inverse type.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_key": {
            "type": "string"
          },
          "type": {
            "type": "string",
            "enum": [
              "blocks",
              "blocked_by",
              "relates_to",
              "duplicates",
              "duplicated_by"
            ]
          },
          "other_issue_key": {
            "type": "string"
          }
        },
        "required": [
          "issue_key",
          "type",
          "other_issue_key"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "delete",
    "adminOnly": false,
    "tool": {
      "name": "delete_relation",
      "description": "Remove a relation from both issues.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "issue_key": {
            "type": "string"
          },
          "relation_id": {
            "type": "string"
          }
        },
        "required": [
          "issue_key",
          "relation_id"
        ]
      },
      "annotations": {
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_trash",
      "description": "Deleted projects, sprints, issues, labels, comments and webhooks, newest first.",
      "inputSchema": {
        "type": "object",
        "properties": {}
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "restore",
      "description": "Bring back a list_trash item by id (a sprint's or project's issues follow; list_trash shows progress).",
      "inputSchema": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          }
        },
        "required": [
          "id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "write",
    "adminOnly": false,
    "tool": {
      "name": "revert_change",
      "description": "Undo a get_issue_activity entry whose fields hold what it wrote.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "activity_id": {
            "type": "string"
          }
        },
        "required": [
          "activity_id"
        ]
      },
      "annotations": {
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
      }
    }
  },
  {
    "scope": "read",
    "adminOnly": false,
    "tool": {
      "name": "list_accounts",
      "description": "The organisation's accounts.",
      "inputSchema": {
        "type": "object",
        "properties": {}
      },
      "annotations": {
        "readOnlyHint": true,
        "openWorldHint": false
      }
    }
  }
];
