//! The vocabulary of least privilege ([`super::access`]): DynamoDB actions
//! in IAM's terms, the resources they apply to, and the pair a call needs
//! and a grant holds.

/// A DynamoDB action a function can be granted (an IAM action without its
/// `dynamodb:` prefix). Table administration (`CreateTable`,
/// `DescribeTable`) is not among them: only operators' tools do it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    GetItem,
    BatchGetItem,
    Query,
    PutItem,
    UpdateItem,
    DeleteItem,
    ConditionCheckItem,
    BatchWriteItem,
    /// Operators' tools only (`check-data`); no function may be granted it.
    Scan,
}

impl Action {
    pub const ALL: [Action; 9] = [
        Action::GetItem,
        Action::BatchGetItem,
        Action::Query,
        Action::PutItem,
        Action::UpdateItem,
        Action::DeleteItem,
        Action::ConditionCheckItem,
        Action::BatchWriteItem,
        Action::Scan,
    ];

    /// The name as DynamoDB's API and IAM spell it, e.g. `GetItem`.
    pub fn name(self) -> &'static str {
        match self {
            Action::GetItem => "GetItem",
            Action::BatchGetItem => "BatchGetItem",
            Action::Query => "Query",
            Action::PutItem => "PutItem",
            Action::UpdateItem => "UpdateItem",
            Action::DeleteItem => "DeleteItem",
            Action::ConditionCheckItem => "ConditionCheckItem",
            Action::BatchWriteItem => "BatchWriteItem",
            Action::Scan => "Scan",
        }
    }

    /// The IAM action, e.g. `dynamodb:GetItem`.
    pub fn iam(self) -> String {
        format!("dynamodb:{}", self.name())
    }

    pub fn parse(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// What an action is authorised on: the table, or its indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Table,
    Indexes,
}

impl Resource {
    pub fn name(self) -> &'static str {
        match self {
            Resource::Table => "table",
            Resource::Indexes => "indexes",
        }
    }

    pub fn parse(name: &str) -> Option<Resource> {
        [Resource::Table, Resource::Indexes]
            .into_iter()
            .find(|r| r.name() == name)
    }
}

/// One action on one resource: what a call needs, and what a grant holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Permission {
    pub action: Action,
    pub on: Resource,
}

impl Permission {
    pub const fn table(action: Action) -> Self {
        Self {
            action,
            on: Resource::Table,
        }
    }

    pub const fn indexes(action: Action) -> Self {
        Self {
            action,
            on: Resource::Indexes,
        }
    }
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match self.on {
            Resource::Table => "the table",
            Resource::Indexes => "an index",
        };
        write!(f, "{} on {on}", self.action.iam())
    }
}
